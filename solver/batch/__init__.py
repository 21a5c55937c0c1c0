"""batch: see the README's Layout section."""
