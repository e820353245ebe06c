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
    4.553, -34.833, -35.990, 12.052, 11.781, 25.989, -38.496, 34.669, 0.978, 10.537,
    11.572, 6.169, -18.666, -14.253, 2.851, 10.064, -16.481, 50.644, 3.054, -3.920,
    -13.849, 22.250, 13.126, -15.353, -0.517, 39.447, 23.727, 15.424, 2.307, -31.204,
    -18.160, 2.349, -2.579, -10.992, -7.206, -25.070, -10.117, -11.618, -0.314, 19.799,
    1.329, 7.773, 24.493, 20.830, -20.097, -2.379, 2.625, -0.069, -27.402, -4.634,
    23.963, -22.016, -6.108, 26.636, -12.058, 24.807, 0.599, 43.399, 16.870, -5.549,
    -3.738, -12.256, -6.239, 19.161, 31.670, 22.444, 19.302, 32.034, -23.542, 9.711,
    38.715, 17.035, 0.939, -5.736, 21.274, 9.212, 2.831, -7.937, -19.048, 5.832,
    30.108, -23.806, 33.007, 19.654, -5.229, -5.938, -23.566, -6.692, -45.340, 11.167,
    -13.584, -11.338, -7.579, 6.652, -22.833, -54.818, -21.443, -13.721, -5.694, -17.150,
    17.020, 11.642, 12.869, 58.295, 23.102, 19.740, 5.262, -40.792, 25.598, 30.216,
    -14.557, -7.581, 9.395, -12.067, -1.863, -6.619, 14.239, 3.270, -7.052, -7.614,
    -0.752, -21.204, 31.708, 8.815, -29.121, -26.617, -6.851, -51.584, -27.364, -8.870,
    5.366, 17.688, 24.998, -19.123, 27.762, 8.619, -7.750, -5.357, 24.585, 26.534,
    -0.164, -10.025, 25.778, 13.804, 18.737, 22.722, 0.242, -9.298, 33.778, 22.738,
    46.380, 48.144, 22.917, 20.810, -13.696, 11.554, 36.834, -27.404, 20.357, -10.997,
    -31.145, 4.103, 17.911, 18.520, 2.674, 23.342, 36.146, 15.855, -6.742, 12.865,
    15.155, -4.863, 54.931, -24.985, -4.689, -10.814, 30.389, 27.015, -0.725, 27.327,
    35.106, 2.397, -26.349, 9.426, -9.795, 8.264, -7.880, 16.590, -15.640, 6.151,
    -16.791, -1.925, -10.879, -5.120, 12.552, 1.895, -4.291, 5.570, 4.531, -22.459,
    -4.038, -5.514, 14.114, 8.576, 21.641, -1.545, 39.705, 15.844, -11.065, -13.389,
    14.269, 35.300, -14.296, -61.018, 1.358, 6.618, -6.633, -22.353, -6.344, 21.196,
    27.351, 4.044, -22.793, -2.793, -7.830, 46.260, -14.036, -11.079, -32.930, -0.591,
    9.076, -11.151, 6.830, 27.166, -22.250, 7.396, 8.086, -6.244, 11.777, 19.871,
    11.118, -25.319, -34.686, -38.520, -1.701, 6.343, 1.355, 31.846, 10.522, -9.840,
    -21.196, 33.232, -14.059, 16.333, -4.408, -71.344, 8.326, 31.136, -15.891, -16.336,
    38.476, -4.515, 9.442, -13.110, -14.384, 24.048, -16.766, -18.140, -38.900, -7.218,
    -7.303, 26.645, 45.750, 33.417, 41.972, 2.053, -14.792, 3.333, -23.585, 20.327,
    44.352, -5.638, 34.873, -6.265, 9.379, 22.158, 11.182, 24.676, 52.491, 50.846,
    6.553, 13.725, -1.398, -1.959, 1.473, -31.474, -16.528, 13.933, -24.594, 5.733,
    22.074, -2.122, 16.584, 29.817, -15.064, -11.231, -4.770, -10.849, -19.284, 28.024,
    -21.893, -18.842, -31.625, -14.009, 12.213, 29.725, 1.241, 11.341, 31.132, -11.671,
    52.479, 4.886, -20.057, -2.614, 14.131, -9.487, -21.989, 15.950, -15.683, -7.150,
    -3.647, 21.931, -23.806, 6.412, -3.302, -31.526, 0.866, -33.819, 31.985, -36.215,
    -3.931, 23.681, 24.467, 15.375, -2.000, 39.377, 3.420, 6.182, 23.191, 19.785,
    -34.864, 38.692, 23.603, 14.918, 10.296, -5.800, 31.535, 34.309, 18.718, -34.372,
    53.662, 50.031, -4.207, -19.251, -22.862, 7.995, -4.525, -1.197, -8.290, -26.001,
    8.961, 44.476, -6.277, 18.704, -21.133, 28.919, 44.024, 17.693, -31.790, 3.969,
    26.193, -21.662, 24.756, -49.323,
)  # fmt: skip

#: The weight of the unit's cosine with the question embedded as a passage.
TOPICAL_WEIGHT = 24.898


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
