"""games/onecard: see the README's Layout section."""
