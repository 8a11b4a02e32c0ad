"""Number types shared by every configuration schema.

Integers are strict (a boolean such as ``rollout.groups=true``, or a float, is not a count);
floats are finite wherever a schema sets ``allow_inf_nan=False`` (every recipe section does).
"""

from typing import Annotated

from pydantic import Field, StrictInt

PositiveInt = Annotated[StrictInt, Field(gt=0)]
NonNegativeInt = Annotated[StrictInt, Field(ge=0)]
