"""Reference model implementations used to exercise realify (e.g. Llama 3 with complex RoPE)."""
