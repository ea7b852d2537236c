from judgebias_core.cli import main

raise SystemExit(main())
