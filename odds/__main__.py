from odds.cli import main

raise SystemExit(main())
