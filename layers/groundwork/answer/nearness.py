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
    3.184, -31.041, -37.730, 11.026, 12.625, 24.886, -38.744, 32.038, 1.485, 8.635,
    10.928, 5.254, -18.090, -13.252, 4.260, 7.419, -14.225, 51.191, 4.716, -3.169,
    -15.042, 22.010, 12.813, -13.961, -0.743, 39.495, 25.459, 14.041, 2.604, -30.222,
    -20.809, 2.316, -0.846, -12.184, -5.386, -25.790, -12.405, -13.494, 1.358, 21.326,
    1.895, 8.092, 24.649, 21.648, -20.265, -5.047, 1.852, 1.194, -27.886, -2.638,
    24.397, -21.028, -5.347, 29.120, -9.004, 23.751, 2.819, 45.792, 16.274, -4.814,
    -4.113, -11.507, -8.094, 18.819, 31.866, 18.185, 18.635, 30.304, -24.253, 9.061,
    40.799, 19.556, 0.859, -4.476, 20.995, 7.976, 1.731, -7.597, -19.271, 4.202,
    30.066, -24.176, 33.457, 21.142, -5.872, -6.920, -22.109, -5.736, -44.474, 14.380,
    -13.458, -12.178, -6.326, 6.021, -22.111, -54.118, -20.460, -13.875, -5.194, -17.093,
    16.030, 10.304, 7.615, 58.810, 22.963, 18.914, 4.100, -41.760, 23.686, 29.601,
    -15.950, -9.033, 6.949, -12.715, -4.053, -6.546, 15.451, 3.039, -4.075, -5.303,
    0.004, -25.170, 32.938, 7.502, -28.982, -28.275, -6.833, -50.659, -27.178, -10.653,
    5.202, 18.212, 23.847, -21.014, 28.844, 10.756, -8.559, -5.415, 25.450, 24.084,
    -1.206, -7.742, 26.574, 16.619, 18.406, 22.226, 2.224, -10.121, 35.911, 20.280,
    44.404, 50.114, 23.521, 21.649, -13.901, 10.892, 35.870, -26.227, 20.623, -9.132,
    -30.512, 0.885, 18.949, 18.437, 1.231, 23.528, 35.457, 16.211, -6.489, 11.513,
    14.275, -3.838, 51.855, -24.670, -5.573, -13.431, 29.918, 28.060, -0.178, 26.611,
    34.217, 1.304, -27.153, 9.155, -7.150, 6.475, -8.942, 18.092, -15.954, 6.098,
    -18.090, -0.739, -10.264, -3.398, 14.297, -0.337, -6.806, 4.361, 1.059, -24.050,
    -8.850, -2.694, 11.624, 8.493, 23.572, -1.310, 33.759, 15.900, -14.068, -16.290,
    13.865, 36.449, -15.138, -59.901, -0.206, 8.209, -6.774, -20.846, -6.731, 20.592,
    26.316, 6.451, -24.578, -3.698, -7.480, 47.091, -13.403, -9.944, -34.306, 0.611,
    9.097, -12.050, 6.316, 26.629, -22.856, 8.746, 2.890, -6.591, 13.127, 21.036,
    12.973, -25.573, -36.284, -37.060, -4.125, 6.920, 2.098, 33.082, 10.512, -9.040,
    -22.788, 33.851, -16.742, 15.505, -3.017, -69.005, 8.374, 32.669, -15.407, -16.046,
    37.952, -5.282, 8.908, -13.606, -15.610, 25.640, -13.585, -17.202, -37.636, -4.105,
    -9.314, 27.340, 46.621, 33.494, 35.660, 1.134, -14.764, 2.817, -22.702, 20.096,
    45.927, -5.701, 33.286, -6.119, 9.149, 23.114, 10.813, 23.063, 50.145, 49.776,
    6.527, 13.057, -0.997, -3.423, 1.752, -33.210, -17.124, 14.684, -23.127, 3.276,
    22.766, -3.782, 16.266, 31.205, -15.617, -9.785, -5.835, -6.051, -19.645, 29.169,
    -21.041, -17.569, -32.238, -13.716, 11.038, 31.473, -0.031, 13.785, 30.046, -9.773,
    52.405, 4.952, -19.879, -4.210, 13.454, -9.313, -21.443, 16.764, -14.070, -8.054,
    -4.050, 21.837, -22.506, 4.934, -4.221, -32.080, 2.359, -33.697, 30.277, -34.624,
    -4.595, 25.633, 26.982, 13.703, -1.480, 40.231, 7.423, 6.475, 23.323, 16.349,
    -37.472, 38.001, 22.106, 14.718, 11.813, -5.868, 32.253, 34.506, 18.159, -35.333,
    55.275, 49.853, -3.791, -20.407, -24.698, 9.474, -3.895, -1.066, -9.194, -26.920,
    6.867, 44.745, -7.641, 18.036, -22.127, 28.345, 45.457, 18.740, -31.788, 3.475,
    27.351, -19.486, 25.320, -50.409,
)  # fmt: skip

#: The weight of the unit's cosine with the question embedded as a passage.
TOPICAL_WEIGHT = 24.025


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
