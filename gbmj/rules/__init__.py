"""Pure rules of Chinese Official Mahjong: values in, values out.

No clock, no I/O, nothing outside the standard library and ``protocol``
(tests/test_layering.py holds this).
"""
