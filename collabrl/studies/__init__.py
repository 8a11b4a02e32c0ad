"""Study files shipped with collabrl (``collabrl study lint NAME``)."""
