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
    2.351, -32.183, -38.581, 11.212, 13.177, 24.282, -39.208, 32.297, 1.562, 8.575,
    10.854, 5.406, -19.457, -13.261, 3.526, 6.388, -13.772, 52.322, 4.490, -2.695,
    -14.615, 22.000, 12.449, -13.614, -0.356, 39.543, 25.450, 14.488, 1.920, -30.086,
    -20.298, 1.677, -1.638, -11.924, -6.326, -25.920, -12.185, -12.949, 1.253, 21.958,
    1.588, 8.189, 23.863, 21.598, -20.742, -5.312, 2.366, 0.653, -27.804, -2.757,
    24.245, -20.979, -4.997, 28.884, -8.993, 23.858, 2.497, 44.270, 16.320, -5.309,
    -3.229, -11.489, -7.998, 18.812, 31.581, 19.338, 19.398, 29.445, -23.582, 8.526,
    40.537, 19.333, 0.818, -4.280, 20.860, 8.023, 3.291, -7.215, -19.701, 5.719,
    31.124, -23.549, 33.623, 20.488, -4.971, -5.815, -22.017, -6.515, -43.572, 13.751,
    -12.984, -11.979, -5.783, 6.212, -22.323, -54.190, -21.232, -13.604, -6.089, -17.295,
    15.818, 9.966, 8.522, 59.123, 23.890, 19.068, 4.234, -41.847, 23.309, 29.508,
    -17.286, -8.673, 7.226, -13.178, -4.346, -6.669, 15.040, 3.680, -4.711, -5.887,
    0.582, -24.457, 32.754, 8.273, -28.184, -28.437, -6.859, -50.750, -26.627, -10.546,
    5.239, 18.971, 24.339, -20.999, 28.720, 11.154, -8.884, -4.969, 25.518, 24.176,
    -0.600, -7.432, 25.884, 17.899, 18.380, 23.638, 2.150, -10.199, 34.569, 20.221,
    44.175, 50.078, 24.202, 22.798, -14.151, 10.619, 36.049, -26.775, 20.439, -10.308,
    -29.920, 1.968, 18.908, 18.928, 1.069, 23.846, 34.307, 17.279, -7.135, 12.459,
    14.634, -4.219, 51.633, -24.847, -5.750, -13.144, 30.188, 28.168, 0.144, 26.628,
    34.777, 1.472, -27.146, 8.487, -7.266, 6.300, -8.434, 17.563, -16.106, 5.607,
    -18.005, -0.536, -10.163, -3.521, 13.280, -0.532, -6.696, 4.492, 1.110, -24.826,
    -8.685, -2.699, 13.180, 8.726, 23.396, -1.403, 34.314, 15.600, -13.876, -16.897,
    14.013, 36.726, -14.467, -60.353, -0.597, 7.795, -7.146, -21.061, -7.094, 20.102,
    26.615, 6.128, -24.637, -2.341, -8.144, 46.942, -13.705, -10.278, -33.679, 0.222,
    9.009, -12.554, 6.227, 26.526, -22.668, 8.427, 2.491, -6.194, 13.731, 21.586,
    13.376, -25.153, -36.480, -37.108, -4.082, 6.342, 1.904, 32.912, 10.857, -9.091,
    -22.686, 34.463, -16.556, 15.626, -2.944, -69.935, 8.976, 32.440, -15.337, -16.641,
    38.206, -5.139, 8.786, -13.398, -15.438, 25.254, -14.501, -17.998, -38.616, -4.523,
    -9.448, 26.654, 45.755, 33.683, 37.525, 1.186, -13.526, 2.491, -23.209, 20.677,
    45.930, -6.865, 32.876, -6.522, 9.228, 23.228, 11.386, 23.152, 50.080, 49.241,
    6.296, 11.993, -1.043, -3.403, 1.883, -33.390, -17.080, 15.357, -22.793, 3.438,
    23.204, -3.258, 16.192, 31.932, -17.086, -8.740, -5.971, -6.512, -19.599, 28.557,
    -20.533, -18.744, -32.918, -13.290, 11.037, 31.487, 0.707, 13.800, 30.684, -10.586,
    52.635, 4.057, -20.095, -3.756, 13.376, -8.699, -21.300, 16.629, -13.850, -7.617,
    -4.464, 21.117, -22.670, 4.402, -4.111, -31.784, 2.342, -34.244, 30.530, -34.728,
    -4.759, 25.258, 26.818, 13.990, -1.482, 40.958, 7.608, 6.130, 23.770, 18.276,
    -38.296, 38.743, 22.171, 13.584, 11.005, -5.391, 31.914, 34.471, 18.888, -35.043,
    55.430, 49.946, -3.051, -20.997, -24.935, 8.876, -4.228, -0.802, -9.451, -26.265,
    6.923, 44.358, -7.546, 17.246, -22.940, 28.425, 46.682, 18.950, -31.162, 3.675,
    27.233, -19.568, 25.335, -50.284,
)  # fmt: skip

#: The weight of the unit's cosine with the question embedded as a passage.
TOPICAL_WEIGHT = 24.161


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
