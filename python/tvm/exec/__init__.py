"""Entry points run as `python -m tvm.exec.<name>`."""
