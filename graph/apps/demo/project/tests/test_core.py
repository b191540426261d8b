import time
import unittest

from stats import mean, median, spread


class TestCore(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)

    def test_median_odd(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_median_even(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_spread(self):
        self.assertEqual(spread([5, -1, 3]), 6)

    def test_large_sample(self):
        # Stands in for a slow integration test: it gives `cairn demo` time to kill cairn mid-command.
        time.sleep(2)
        self.assertEqual(median(list(range(1, 101))), 50.5)


if __name__ == "__main__":
    unittest.main()
