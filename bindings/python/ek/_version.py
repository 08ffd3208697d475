# The version of this package: meson.build's project() version, copied here
# because Python packaging needs a literal. scripts/check_versions.sh (run by
# CI) fails when the two differ; scripts/check_versions.sh --update copies it.
__version__ = "0.1.0"
