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
    2.423, -33.487, -38.295, 11.307, 13.110, 24.381, -39.650, 32.776, 1.773, 8.526,
    10.889, 5.380, -18.936, -13.433, 3.236, 7.026, -14.323, 52.402, 4.492, -3.301,
    -14.557, 22.019, 11.934, -13.412, -0.287, 39.391, 25.300, 14.381, 1.748, -30.073,
    -20.115, 1.421, -2.759, -11.749, -6.062, -25.743, -11.802, -12.814, 1.358, 21.980,
    1.655, 8.345, 24.178, 21.590, -20.592, -5.620, 2.503, 0.767, -27.846, -2.878,
    24.273, -21.757, -5.062, 29.035, -8.661, 23.657, 2.928, 44.654, 16.021, -5.070,
    -3.102, -11.362, -8.049, 18.824, 31.416, 19.361, 19.707, 29.264, -24.089, 8.219,
    40.357, 18.810, 0.713, -4.009, 20.639, 8.447, 3.181, -8.074, -19.624, 6.142,
    30.991, -23.103, 33.726, 20.987, -5.136, -5.646, -22.093, -6.418, -43.102, 12.906,
    -12.866, -11.882, -5.866, 5.333, -22.089, -54.627, -20.743, -14.182, -5.666, -17.219,
    15.136, 9.893, 8.053, 59.023, 24.590, 18.594, 4.388, -40.991, 23.074, 30.013,
    -16.816, -9.197, 7.081, -13.082, -4.278, -6.554, 15.192, 3.866, -5.666, -6.205,
    0.748, -24.515, 33.400, 7.985, -28.318, -28.313, -6.904, -50.726, -26.736, -10.300,
    5.525, 18.498, 24.370, -20.335, 28.844, 11.142, -8.254, -5.142, 25.040, 24.282,
    -0.672, -8.330, 25.496, 17.859, 18.484, 23.561, 2.514, -9.440, 33.802, 20.275,
    43.908, 49.840, 24.190, 22.981, -14.030, 10.935, 36.470, -26.566, 20.330, -10.214,
    -29.965, 2.005, 19.663, 18.730, 1.479, 24.098, 34.770, 17.614, -7.931, 12.785,
    13.468, -4.167, 53.253, -24.746, -5.517, -12.181, 30.374, 28.178, -0.615, 26.578,
    34.565, 1.494, -27.375, 8.236, -7.815, 6.454, -8.185, 17.662, -16.085, 5.411,
    -17.966, -0.858, -9.924, -4.426, 13.210, -0.496, -6.811, 4.779, 1.560, -24.954,
    -8.704, -3.029, 13.203, 8.553, 23.618, -1.434, 35.107, 15.161, -13.911, -17.176,
    13.636, 37.004, -14.399, -60.340, -0.586, 7.464, -7.025, -21.221, -7.146, 20.826,
    26.977, 6.204, -24.685, -2.142, -8.400, 46.707, -13.441, -10.191, -33.746, 0.915,
    8.848, -12.723, 5.860, 26.819, -22.708, 8.057, 2.746, -6.245, 13.827, 22.371,
    13.140, -24.926, -36.569, -36.671, -4.375, 6.433, 1.763, 32.912, 10.512, -8.584,
    -22.298, 34.313, -17.216, 15.778, -2.282, -70.069, 8.695, 32.086, -15.260, -16.434,
    38.155, -5.090, 8.461, -13.705, -15.617, 24.740, -14.762, -17.921, -38.711, -4.005,
    -9.551, 26.796, 45.599, 33.780, 37.457, 1.163, -13.101, 2.985, -23.120, 20.623,
    45.988, -7.030, 32.595, -6.913, 9.045, 23.129, 11.930, 23.394, 50.191, 49.440,
    6.698, 11.936, -0.451, -3.805, 2.500, -33.336, -16.795, 15.299, -22.917, 3.527,
    23.246, -3.091, 15.883, 31.853, -16.393, -8.691, -5.597, -6.552, -19.964, 28.393,
    -20.777, -18.687, -32.864, -12.973, 11.160, 31.366, 0.824, 13.671, 31.110, -10.141,
    53.094, 3.509, -20.060, -3.831, 13.199, -9.186, -22.394, 16.851, -14.069, -7.555,
    -4.435, 21.198, -22.707, 4.193, -4.923, -31.554, 1.923, -34.315, 31.044, -35.019,
    -4.794, 25.323, 27.196, 14.256, -1.525, 41.046, 7.573, 5.889, 23.878, 18.374,
    -38.033, 38.680, 21.687, 13.520, 10.954, -5.403, 32.017, 34.651, 18.766, -34.508,
    55.464, 49.962, -2.814, -20.934, -24.973, 8.940, -4.267, -0.665, -9.513, -25.551,
    6.801, 44.486, -7.500, 17.479, -22.702, 28.545, 46.473, 19.256, -31.405, 3.801,
    27.173, -19.545, 25.372, -50.330,
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
