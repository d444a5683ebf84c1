import sys

from ds_gate.cli import main

sys.exit(main())
