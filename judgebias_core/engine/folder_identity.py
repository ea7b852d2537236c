"""A run folder belongs to one store: ``<store dir>/runs/<store name>/store.json`` records the id of the store its
journals were written for (``store_identity``, made when the store was created).

The folder is found by the store's file name, so a store deleted and made again under the same name would find the
old folder, and a resume would replay another store's replies into it without sending a request. A run therefore
claims the folder before it reads a journal: the same store id goes on, another one is refused
(``ForeignRunFolder``), and ``adopt_run_folder`` (CLI ``adopt-run-folder``) is the deliberate way to take it over.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from judgebias_core.engine.journal import JOURNAL_SUFFIX, run_file
from judgebias_core.errors import ForeignRunFolder
from judgebias_core.store import run_queries
from judgebias_core.store.handle import Store
from judgebias_core.text import counted

IDENTITY_FILE = "store.json"
ADOPT_COMMAND = "adopt-run-folder"


def identity_path(store: Store) -> Path:
    return store.run_folder / IDENTITY_FILE


def recorded_store_id(store: Store) -> str | None:
    """The store id the run folder was written for (None: no folder, or one from before store ids existed)."""
    try:
        values = json.loads(identity_path(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = values.get("store_id") if isinstance(values, dict) else None
    return found if isinstance(found, str) else None


def folder_journals(store: Store) -> list[Path]:
    folder = store.run_folder
    return sorted(folder.glob(f"*{JOURNAL_SUFFIX}")) if folder.is_dir() else []


def _record(store: Store, store_id: str, adopted_from: str | None = None) -> None:
    path = identity_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    values = {"store_id": store_id, "store": str(store.path.resolve())}
    temporary.write_text(json.dumps(values | ({"adopted_from": adopted_from} if adopted_from else {})),
                         encoding="utf-8")
    temporary.replace(path)


def _how_to_adopt(store: Store) -> str:
    return (f"to import its journals into this store deliberately, run `python -m judgebias_core --db {store.path} "
            f"{ADOPT_COMMAND}` and then the same `run` command; to start afresh, move the folder "
            f"{store.run_folder} away")


def claim_run_folder(store: Store) -> str:
    """Check the run folder belongs to this store (recording this store's id in a folder that has none); returns
    the store id. ``ForeignRunFolder`` when it was written for another store.

    A folder from before store ids existed is this store's when every journal in it is one of this store's runs (a
    run is registered before its first journal line); a journal of a run the store never had marks another store's
    folder."""
    with store.reader() as reader:
        store_id, run_ids = run_queries.store_id(reader), run_queries.run_ids(reader)
    recorded = recorded_store_id(store)
    if recorded == store_id:
        return store_id
    folder = store.run_folder
    if recorded is not None:
        raise ForeignRunFolder(f"the run folder {folder} was written for another store (id {recorded[:8]}…; this "
                               f"store is {store_id[:8]}…), so its journals are not replayed here: "
                               f"{_how_to_adopt(store)}")
    known = {run_file(store, run_id, JOURNAL_SUFFIX).name for run_id in run_ids}
    strangers = [path.name.removesuffix(JOURNAL_SUFFIX) for path in folder_journals(store) if path.name not in known]
    if strangers:
        shown = ", ".join(strangers[:3]) + (" …" if len(strangers) > 3 else "")
        raise ForeignRunFolder(f"the run folder {folder} holds {counted(len(strangers), 'journal')} of runs this store "
                               f"never had ({shown}): it was left by another store of the same file name, so its "
                               f"journals are not replayed here: {_how_to_adopt(store)}")
    _record(store, store_id)
    return store_id


def adopt_run_folder(store: Store) -> int:
    """Make the run folder this store's, whichever store wrote it (the deliberate import): the next session of each
    of its runs replays the journal into this store. Returns how many journals the folder holds."""
    with store.reader() as reader:
        store_id = run_queries.store_id(reader)
    _record(store, store_id, adopted_from=recorded_store_id(store) or "unknown (a folder without a store id)")
    return len(folder_journals(store))


def set_aside_run_folder(store: Store) -> Path:
    """Rename another store's run folder to ``<store name>.set-aside-<time>`` (nothing deleted: it can be moved
    back and adopted) and return the new path. Only for the first launch's demo runs, which must not be blocked by
    a folder an earlier store left behind; a user's own run is refused instead (``claim_run_folder``)."""
    folder = store.run_folder
    target = folder.with_name(f"{folder.name}.set-aside-{time.strftime('%Y%m%d-%H%M%S')}")
    folder.rename(target)
    return target
