"""In-silico pretests: simulated participants through the same runtime a browser drives."""
