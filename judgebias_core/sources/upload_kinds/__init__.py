"""The built-in upload kinds, one module each defining ``UPLOAD_KIND`` (see ``sources/upload_kind.py``)."""
