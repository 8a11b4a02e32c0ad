"""Simulated-partner profiles: schema, validated loading, and the shipped CollabBench-style library."""

from collabrl.profiles.loader import (
    ProfileError,
    get_profile,
    has_profiles,
    load_profiles,
    read_profile_file,
)
from collabrl.profiles.schema import (
    PLAYER_TYPES,
    TRAITS,
    TYPE_ANCHORS,
    BigFive,
    Profile,
    interleaved_by_type,
)

__all__ = [
    "PLAYER_TYPES",
    "TRAITS",
    "TYPE_ANCHORS",
    "BigFive",
    "Profile",
    "ProfileError",
    "get_profile",
    "has_profiles",
    "interleaved_by_type",
    "load_profiles",
    "read_profile_file",
]
