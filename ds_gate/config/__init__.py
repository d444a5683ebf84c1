"""What configures a verdict: the user's trusted settings (``settings``), a quest's own
configuration, applied only where it is stricter (``quest``), waivers and the rules no waiver lowers."""
