"""Where records and cards come from: folders, git's index, branch tips, memory folders,
``quest.yaml``, the home. Sources read bytes and report what they could not read (with the
rules of ``sources.problems``); they never judge a record."""
