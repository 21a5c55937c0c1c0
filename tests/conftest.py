import sys
from pathlib import Path

# Let tests import the plain reference helpers that live beside them (naive_rng, reference, ...).
sys.path.insert(0, str(Path(__file__).parent))
