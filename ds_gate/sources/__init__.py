"""Sources read bytes from the filesystem and git; they know nothing of the gate's rules."""
