"""Plain-Python SplitMix64 and Fisher-Yates, written from the description in docs/pyramid.md ("Seeded deals") only.

The numba generator in solver/core/rng.py must agree with this on every seed tried."""

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & M64

    def next(self):
        self.state = (self.state + GAMMA) & M64
        return mix64(self.state)

    def below(self, n):
        threshold = ((1 << 64) - n) % n
        while True:
            r = self.next()
            if r >= threshold:
                return r % n

    def shuffle(self, a):
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]


def stream_seed(seed, index):
    return mix64((seed ^ mix64((index + GAMMA) & M64)) & M64)


def naive_deal(seed):
    deck = list(range(52))
    SplitMix64(seed).shuffle(deck)
    return deck
