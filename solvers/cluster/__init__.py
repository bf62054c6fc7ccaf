"""Data as Dask arrays: solves whose rows are chunked over a cluster."""
