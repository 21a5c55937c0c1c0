"""games/duizenden: see the README's Layout section."""
