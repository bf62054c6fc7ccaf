"""What a solve is given: the problem, its data and starting point checked and prepared, on a device."""
