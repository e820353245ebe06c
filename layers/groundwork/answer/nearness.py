"""A learned nearness of a unit to the question: e5's dot product with each dimension weighed,
and the unit's cosine with the question read as a passage.

The cosine weighs e5's 384 dimensions alike; the real-question benchmark says some of them
tell an answer from a sentence on the same topic better than others. :data:`WEIGHTS` is that
weighing. The question is also embedded the way the units are (``passage: …``, its *topic*):
e5 reads a query as asking for what answers it and a passage as what it is about, and the two
cosines together choose better than either. :data:`TOPICAL_WEIGHT` weighs the second. Both are
fitted with the unit weights of :mod:`groundwork.answer.relevance` on the benchmark (``python
-m bench.fit_reading`` prints them), on multilingual-e5-small's vectors, and mean nothing in
another model's space: with another embedder the nearness is 0.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from groundwork.embeddings.models import E5_SMALL

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np
    import numpy.typing as npt

    from groundwork.embeddings.base import EmbeddingModel

#: One weight per dimension of multilingual-e5-small's vectors.
WEIGHTS = (
    2.961, -33.654, -37.991, 12.161, 14.072, 24.967, -39.820, 32.467, 0.391, 8.221,
    10.256, 4.643, -18.912, -12.876, 2.715, 5.979, -14.352, 51.923, 2.457, -2.547,
    -15.157, 21.909, 12.270, -14.453, -0.470, 38.652, 24.466, 14.555, 1.403, -29.958,
    -20.760, 1.305, -2.034, -12.849, -6.004, -25.538, -11.702, -11.846, 2.139, 21.774,
    1.294, 8.603, 24.229, 20.783, -21.632, -5.783, 2.749, 1.522, -27.741, -2.994,
    24.822, -21.996, -4.730, 28.809, -9.438, 23.467, 2.930, 43.944, 15.256, -4.302,
    -3.229, -12.305, -8.233, 18.558, 31.251, 20.284, 20.214, 30.588, -25.069, 7.998,
    40.905, 18.747, 0.426, -3.830, 21.850, 10.634, 3.376, -7.089, -19.782, 5.967,
    30.470, -23.929, 33.666, 21.739, -5.138, -6.413, -22.579, -5.253, -42.102, 12.951,
    -14.092, -11.600, -5.278, 4.417, -22.696, -54.514, -20.531, -14.058, -5.546, -16.402,
    13.063, 9.917, 8.199, 58.760, 23.955, 17.461, 4.096, -42.167, 22.028, 30.573,
    -16.518, -9.878, 8.115, -12.477, -4.245, -5.378, 15.776, 4.057, -5.812, -6.197,
    0.685, -24.825, 32.449, 7.315, -28.416, -27.686, -6.226, -49.987, -30.394, -10.220,
    6.965, 19.019, 23.996, -19.528, 28.315, 12.018, -9.883, -5.098, 24.596, 23.831,
    -0.773, -8.311, 26.165, 17.826, 18.963, 23.236, 4.870, -9.295, 34.278, 18.467,
    44.416, 49.496, 24.503, 22.151, -13.949, 12.122, 35.650, -28.076, 20.183, -10.427,
    -30.954, 1.576, 20.292, 18.643, 3.095, 23.853, 34.522, 17.182, -8.707, 12.887,
    12.396, -4.315, 53.641, -24.563, -6.432, -11.929, 29.973, 27.124, -1.455, 26.541,
    34.003, 2.523, -27.121, 7.444, -7.325, 6.977, -8.384, 18.327, -15.646, 4.906,
    -17.914, -1.431, -11.095, -4.055, 12.621, 0.145, -6.541, 4.989, 1.568, -24.566,
    -8.521, -3.119, 13.362, 7.572, 23.010, -1.594, 35.603, 14.809, -13.659, -16.869,
    15.113, 36.730, -15.127, -60.148, -0.628, 7.146, -6.731, -21.736, -8.320, 21.005,
    26.025, 6.630, -24.401, -3.636, -9.509, 47.764, -14.372, -10.439, -33.806, 1.054,
    9.746, -13.233, 6.555, 26.582, -22.471, 8.364, 1.900, -5.740, 14.002, 21.930,
    15.077, -22.962, -37.289, -35.727, -3.998, 6.178, 1.986, 33.694, 10.323, -8.798,
    -22.128, 35.148, -16.437, 15.111, -3.123, -70.457, 7.976, 31.818, -15.059, -17.269,
    38.933, -6.326, 8.995, -14.080, -15.358, 27.188, -14.636, -17.035, -38.235, -3.647,
    -6.922, 26.347, 46.517, 33.166, 36.776, 0.626, -12.269, 3.891, -22.971, 20.555,
    45.945, -6.671, 30.770, -6.569, 9.980, 22.863, 12.269, 23.473, 50.066, 49.651,
    6.692, 12.999, -1.023, -3.480, 4.384, -31.408, -16.897, 15.386, -22.627, 4.056,
    23.301, -3.210, 15.794, 30.903, -15.339, -8.885, -6.112, -6.049, -19.638, 28.955,
    -21.536, -21.140, -30.418, -12.974, 10.545, 30.724, 1.833, 13.949, 29.815, -11.211,
    52.749, 1.251, -19.702, -5.790, 12.919, -8.897, -23.800, 15.995, -13.734, -7.282,
    -3.545, 21.360, -21.754, 4.698, -5.144, -31.511, 2.394, -34.010, 31.796, -32.978,
    -4.677, 26.908, 26.694, 14.438, -2.058, 42.047, 7.380, 5.662, 23.511, 18.793,
    -39.009, 38.106, 22.018, 13.205, 10.269, -5.026, 30.928, 34.638, 20.091, -36.105,
    55.777, 49.917, -2.482, -20.666, -25.881, 9.824, -3.993, -0.877, -9.681, -25.725,
    6.410, 42.806, -7.446, 16.678, -22.962, 26.538, 45.748, 20.601, -31.596, 3.345,
    27.405, -18.330, 24.965, -50.031,
)  # fmt: skip

#: The weight of the unit's cosine with the question embedded as a passage.
TOPICAL_WEIGHT = 24.186


def fitted_for(model: EmbeddingModel) -> bool:
    """Whether the nearness means anything in ``model``'s space (else the topic is not asked)."""
    return model == E5_SMALL


def nearness(
    question: npt.NDArray[np.float32],
    units: Mapping[int, npt.NDArray[np.float32]],
    model: EmbeddingModel,
    weights: npt.NDArray[np.float64] | None = None,
    *,
    topic: npt.NDArray[np.float32] | None = None,
    topical: float = TOPICAL_WEIGHT,
) -> dict[int, float]:
    """Each unit's learned nearness to the question (its query vector; ``topic``, its passage
    vector, where embedded), by unit index (none for a model other than the one :data:`WEIGHTS`
    was fitted on)."""
    if not fitted_for(model):
        return {}
    weighed = question * (_weights() if weights is None else weights)
    if topic is not None:
        weighed = weighed + topical * topic
    return {i: float(vector @ weighed) for i, vector in units.items()}


@cache
def _weights() -> npt.NDArray[np.float64]:
    import numpy as np

    return np.array(WEIGHTS, dtype=np.float64)
