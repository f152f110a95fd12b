"""A target whose import fails."""

raise ImportError("this module cannot be imported: missing native library")
