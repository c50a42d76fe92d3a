"""failref: a knowledge base of performance failures in GPU training and inference."""
