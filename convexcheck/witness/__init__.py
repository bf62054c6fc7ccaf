"""Counterexamples: sampled Hessians, Lanczos and chord (Jensen gap) witnesses."""
