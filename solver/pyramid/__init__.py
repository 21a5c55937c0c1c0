"""pyramid: see the README's Layout section."""
