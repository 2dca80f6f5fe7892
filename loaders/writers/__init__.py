__all__ = []
"""One writer per mutation: each validates its whole command, then writes, then returns the
rows it wrote. Nothing is written when a check fails."""
