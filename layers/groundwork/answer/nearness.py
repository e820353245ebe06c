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
    2.414, -33.490, -38.286, 11.312, 13.101, 24.391, -39.652, 32.772, 1.774, 8.525,
    10.899, 5.372, -18.937, -13.420, 3.242, 7.030, -14.324, 52.400, 4.489, -3.313,
    -14.570, 22.013, 11.925, -13.412, -0.292, 39.412, 25.296, 14.390, 1.742, -30.057,
    -20.116, 1.409, -2.758, -11.745, -6.081, -25.738, -11.794, -12.831, 1.338, 21.988,
    1.645, 8.367, 24.177, 21.589, -20.579, -5.631, 2.515, 0.758, -27.842, -2.885,
    24.268, -21.760, -5.062, 29.027, -8.666, 23.657, 2.934, 44.675, 16.010, -5.088,
    -3.078, -11.352, -8.045, 18.837, 31.445, 19.358, 19.712, 29.268, -24.085, 8.222,
    40.342, 18.795, 0.703, -4.009, 20.636, 8.445, 3.194, -8.085, -19.624, 6.138,
    30.994, -23.110, 33.711, 20.983, -5.136, -5.645, -22.088, -6.427, -43.101, 12.899,
    -12.858, -11.891, -5.851, 5.343, -22.085, -54.610, -20.733, -14.164, -5.673, -17.223,
    15.156, 9.879, 8.050, 59.041, 24.589, 18.585, 4.391, -40.983, 23.075, 30.001,
    -16.825, -9.187, 7.077, -13.070, -4.301, -6.557, 15.201, 3.870, -5.678, -6.214,
    0.744, -24.523, 33.393, 7.984, -28.291, -28.315, -6.900, -50.739, -26.748, -10.301,
    5.529, 18.495, 24.376, -20.340, 28.837, 11.133, -8.270, -5.143, 25.024, 24.265,
    -0.670, -8.330, 25.501, 17.851, 18.490, 23.540, 2.516, -9.441, 33.819, 20.286,
    43.902, 49.846, 24.191, 22.966, -14.026, 10.935, 36.482, -26.564, 20.324, -10.219,
    -29.977, 2.015, 19.673, 18.729, 1.479, 24.097, 34.776, 17.630, -7.940, 12.774,
    13.477, -4.159, 53.251, -24.746, -5.513, -12.178, 30.372, 28.178, -0.618, 26.584,
    34.565, 1.497, -27.376, 8.234, -7.823, 6.436, -8.183, 17.697, -16.085, 5.432,
    -17.967, -0.860, -9.941, -4.431, 13.208, -0.486, -6.823, 4.775, 1.568, -24.944,
    -8.706, -3.033, 13.199, 8.560, 23.608, -1.436, 35.103, 15.151, -13.910, -17.167,
    13.668, 37.006, -14.430, -60.340, -0.594, 7.455, -7.027, -21.223, -7.151, 20.794,
    26.976, 6.201, -24.696, -2.150, -8.400, 46.687, -13.437, -10.177, -33.745, 0.907,
    8.847, -12.728, 5.848, 26.800, -22.705, 8.065, 2.735, -6.256, 13.817, 22.376,
    13.140, -24.910, -36.574, -36.683, -4.358, 6.408, 1.753, 32.930, 10.510, -8.581,
    -22.283, 34.298, -17.213, 15.779, -2.286, -70.070, 8.707, 32.109, -15.254, -16.426,
    38.152, -5.088, 8.455, -13.680, -15.636, 24.727, -14.754, -17.920, -38.697, -4.004,
    -9.564, 26.791, 45.597, 33.775, 37.457, 1.159, -13.100, 2.980, -23.125, 20.622,
    45.992, -7.032, 32.585, -6.916, 9.040, 23.136, 11.945, 23.406, 50.182, 49.426,
    6.703, 11.950, -0.453, -3.803, 2.512, -33.312, -16.793, 15.295, -22.896, 3.523,
    23.257, -3.080, 15.880, 31.820, -16.392, -8.679, -5.600, -6.551, -19.966, 28.385,
    -20.802, -18.687, -32.865, -12.962, 11.161, 31.352, 0.827, 13.674, 31.126, -10.139,
    53.091, 3.478, -20.061, -3.819, 13.199, -9.180, -22.387, 16.854, -14.066, -7.544,
    -4.422, 21.200, -22.706, 4.183, -4.916, -31.556, 1.922, -34.329, 31.056, -35.013,
    -4.796, 25.329, 27.196, 14.252, -1.532, 41.060, 7.585, 5.897, 23.890, 18.376,
    -38.026, 38.671, 21.683, 13.517, 10.951, -5.407, 32.035, 34.646, 18.752, -34.518,
    55.464, 49.960, -2.807, -20.938, -24.967, 8.952, -4.270, -0.664, -9.540, -25.552,
    6.800, 44.488, -7.501, 17.486, -22.697, 28.557, 46.477, 19.247, -31.394, 3.800,
    27.161, -19.541, 25.366, -50.340,
)  # fmt: skip

#: The weight of the unit's cosine with the question embedded as a passage.
TOPICAL_WEIGHT = 24.190


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
