"""What the kernel generators share: argument parsing and the dtype registry."""
