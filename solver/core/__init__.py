"""core: see the README's Layout section."""
