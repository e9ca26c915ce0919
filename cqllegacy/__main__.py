import sys

from cqllegacy.cli import main

sys.exit(main())
