import sys

from fairkit.cli import main

sys.exit(main())
