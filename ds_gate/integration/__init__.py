"""ds-gate's opt-in DeepScientist integration: ``ds-gate install --deepscientist``.

``boot``, ``wrap`` and ``tools`` run inside DeepScientist's own runtime Python (copied there,
standard library only); ``call`` and ``review`` answer them from ds-gate's interpreter;
``installer`` puts the files in and takes them out; ``engine/doctor_integration.py`` checks them;
``demo_service`` is the demo's service shaped like main's, wrapped by the same code.
See docs/deepscientist-integration.md.
"""
