"""
Reads a MySQL/MariaDB source's binlogs with python-mysql-replication, from the first binlog's start to the end
(non-blocking), and prints each row change as one JSON line: the event kind, schema, table and each row's values
by the names the client gives the columns. Used by test/serve-cdc-clients.test.ts to compare what the client sees
of a real primary with what it sees of `binlog serve` of that primary's files.

Arguments: a JSON object of pymysql connection settings (host/port or unix_socket, user, passwd), and the first
binlog's name.
"""
import json
import sys

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

KINDS = {WriteRowsEvent: "insert", UpdateRowsEvent: "update", DeleteRowsEvent: "delete"}


def plain(value):
    """A value JSON has no form for: a SET's members in order (a Python set's order changes from run to run), else
    its text."""
    return sorted(value) if isinstance(value, set) else str(value)


def main() -> None:
    settings = json.loads(sys.argv[1])
    stream = BinLogStreamReader(
        connection_settings=settings,
        server_id=4242,
        blocking=False,
        log_file=sys.argv[2],
        log_pos=4,
        resume_stream=True,
        only_events=list(KINDS),
    )
    try:
        for event in stream:
            for row in event.rows:
                line = {"kind": KINDS[type(event)], "schema": event.schema, "table": event.table, "row": row}
                print(json.dumps(line, default=plain, sort_keys=True), flush=True)
    finally:
        stream.close()


main()
