"""ds-gate's opt-in DeepScientist integration, ``ds-gate install --deepscientist`` (docs/deepscientist-integration.md).

``boot``, ``wrap``, ``service`` and ``tools`` run inside DeepScientist's runtime Python (copied
there, standard library only); ``call`` and ``review`` answer them from ds-gate's interpreter;
``installer`` puts the files in and takes them out.
"""
