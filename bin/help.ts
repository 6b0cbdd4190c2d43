/**
 * The command's help, in parts: `binlog --help` shows them all, `binlog COMMAND --help` the parts of its
 * command. Text only, so that printing it loads nothing of the runtime.
 */
import { ASSUMED_FORMAT } from '../runtime/events/assumed-format.js';

const USAGE = `binlog: read and write MySQL and MariaDB binary logs exactly.

Usage:
  binlog dump [options] FILE...   Write each event of each binlog as one line of JSON.
  binlog dump [options] -         Read the binlog from standard input.
  binlog encode [FILE | -] -o OUT Write the binlog that JSON Lines in dump's format describe.
  binlog sql [options] FILE...    Write the row changes as SQL statements (--flashback: their undo).
  binlog flashback [options] FILE... -o UNDO.bin
                                  Write an undo binlog: the changes reversed, last to first.
  binlog serve [options] FILE|DIR...
                                  Serve binlogs to replicas and CDC clients, as a primary does.
  binlog stream -R [options] LOGNAME --to=nats://HOST:PORT
                                  Publish a server's row changes to NATS JetStream, exactly once.
  binlog schema [options] FILE... [--at=FILE:POS]
                                  Print the tables' definitions at a point of the binlogs (the end by
                                  default) as CREATE TABLE statements: the schema history's.
  binlog --help                   Show this help (also COMMAND --help).
  binlog --version                Show the version.
  binlog completion               Print a bash completion script: source <(binlog completion).

`;
const DUMP_HELP = `Options for dump:
  --no-verify-checksum       Do not check events' CRC32 (a mismatch is otherwise an error).
  --on-error=stop|skip       On an event that cannot be decoded: stop (the default), or report it on
                             stderr, print it as raw bytes and go on (exit status 4 at the end).
  --start-position=N         Begin with the first transaction that begins at or after byte offset N
                             of the first FILE; every later event is kept.
  --stop-position=N          Stop at the first event at or after offset N of the last FILE.
  --start-datetime=T         Begin with the first transaction whose first event is at or after T
                             ('YYYY-MM-DD HH:MM:SS', UTC unless T gives an offset, where mariadb-binlog
                             takes its local time); every later event is kept, as mariadb-binlog does.
  --stop-datetime=T          Stop at the first event at or after T.
                             The transaction a stop falls in is left out whole, and one begun before a
                             start too: what is kept is whole transactions (GTID or BEGIN to COMMIT, XID
                             or XA PREPARE; a DDL statement; a compressed TRANSACTION_PAYLOAD).
  --database=DB              Only the transactions that touch database DB, and of those only their
                             frame (GTID, BEGIN, XA END, COMMIT, XID, XA PREPARE) and DB's events:
                             TABLE_MAP, rows, ANNOTATE_ROWS and ROWS_QUERY, and the statements (DDL,
                             statement-based changes) whose default database is DB, as mariadb-binlog
                             --database keeps them. Give it more than once for more databases.
  --table=[DB.]TABLE         The same for a table: its TABLE_MAP, rows, ANNOTATE_ROWS and ROWS_QUERY.
                             Statements are left out, since only their SQL says what tables they touch.
  --case-insensitive-names   Compare database and table names without regard to case, as a server with
                             lower_case_table_names=1 or 2 does (by default they compare exactly, as
                             with 0, Linux's default).
  --max-transaction-size=N   Bytes of events the filters may hold of one transaction (default 64M; K,
                             M, G). A stop filter holds each transaction until its end, to tell whether
                             the stop falls in it; past the limit dump stops with an error.
  --follow                   Keep reading a binlog the server is still writing, waiting for new
                             events and going on to the next file at a ROTATE (one FILE).
  --payloads=nested|flat     A TRANSACTION_PAYLOAD's events (MySQL 8 compressed transactions): inside
                             its line, as "events" (the default), or each on a line of its own after
                             it, with "inPayload": the payload's pos. encode takes either.
  --format=jsonl|json        One JSON object per line (the default), or one JSON array of them all.
  --pretty                   With --format=json: indented.
  --progress                 Show a progress line on stderr (by default, when stderr is a terminal
                             and stdout is not): bytes and events read, and the share and time left.
The FORMAT_DESCRIPTION event (and START_EVENT_V3, START_ENCRYPTION) passes every filter but the stops.
A --database or --table that no event read names is said on stderr, and the exit status is then 5.

`;
const REMOTE_HELP = `Reading a running server's binlog, as a replica (mariadb-binlog's names):
  binlog dump -R [options] LOGNAME
  -R, --read-from-remote-server  Connect to a server and read its binlog LOGNAME (a file's base name)
                             from --start-position (default 4), or after --start-gtid, to LOGNAME's
                             end; the lines are the file dump's, pos being the offset in the server's
                             file. Events the server sends beside its files' (the ROTATE that names
                             the file a dump starts in, the FORMAT_DESCRIPTION it resends, MariaDB's
                             GTID_LIST of the start, heartbeats) carry "notInFile"; encode leaves them
                             out. The filters above apply (--start-position is where the dump starts).
  --host=H --port=P          TCP (default localhost:3306); --socket=S, a unix socket instead.
  --user=U --password[=PW]   The account (it needs REPLICATION SLAVE; REPLICATION CLIENT, or MariaDB's
                             BINLOG MONITOR, for a GTID start's position). --password without a value
                             asks for it; MYSQL_PWD is taken when neither is given. ps shows a given
                             password masked.
  --password-file=FILE       The password from FILE's first line, so that it is on no command line.
  --server-id=N              The replica's server id (default 65535): unique among the server's
                             replicas, and not the server's own.
  --start-gtid=SET           Start after a GTID state: MariaDB's 0-1-100,1-2-7 or a MySQL GTID set.
  --to-last-log              Go on through the later binlogs to the end of the last one.
  --stop-never               Go on, and wait for new events, until interrupted.
  --heartbeat-period=S       Seconds between the heartbeats of an idle server (default 30). Nothing
                             from the server for twice that (at least 1 s) is a lost connection.
  --connect-timeout=S        Seconds to wait for each step before the dump: the connection, the
                             server's greeting and the login together, then each query and command
                             (default 10; 0: no limit). The error names the step left unanswered.
  --ssl-mode=MODE            TLS: DISABLED (the default without --ssl-ca, --ssl-cert or --ssl-key),
                             REQUIRED (encrypted, the certificate unchecked), VERIFY_CA (signed by
                             --ssl-ca's CA, the default with it) or VERIFY_IDENTITY (and naming the host).
  --ssl-ca=FILE --ssl-cert=FILE --ssl-key=FILE  The CA to check the server with; a client certificate.
  --server-public-key-path=FILE  The server's RSA public key (PEM): caching_sha2_password and
                             sha256_password send the password over plain TCP only encrypted with it
                             (or over TLS, or a unix socket); otherwise the login is refused.
  --get-server-public-key    Let the server send that key itself (a server in the middle could).
  --max-allowed-packet=N     The longest packet (an event) taken from the server, in bytes or with K,
                             M or G (default 1G): a longer one ends the dump as its frames announce it.
  --use-information-schema   For tables whose TABLE_MAP has no column names (binlog_row_metadata
                             NO_LOG or MINIMAL), read names, UNSIGNED, charsets and ENUM/SET members
                             from information_schema.COLUMNS over a second connection: the tables as
                             they are now, for a table the schema history does not have, checked
                             against its TABLE_MAP like any definition (one that does not fit it is
                             said, its rows read without names, exit 7).
  --reconnect                When the connection is lost or cannot be made (the server restarting,
                             the dump thread killed, the network cut), connect again and go on from the
                             end of the last transaction read; a transaction cut by the loss is written
                             once (with --raw: from the end of the last event written, into the
                             same file). Without it, the loss ends the dump (exit 6).
  --retry-count=N            With --reconnect: attempts in a row before giving up (default 10).
  --retry-delay=S            With --reconnect: seconds before the first attempt (default 1), doubled
                             after each failed one, up to 30.
  --retry-timeout=S          With --reconnect: give up S seconds after the loss (default: no limit).
                             Giving up is exit 6, saying the attempts made and the last error.
  --snapshot                 First the tables --database and --table select, as of one consistent
                             point (SNAPSHOT_START, SNAPSHOT_ROWS per page, SNAPSHOT_END lines), then the
                             binlog from exactly that point; no LOGNAME. MariaDB takes no lock. See
                             docs/cli.md. (sql -R --snapshot: CREATE TABLEs and INSERTs, then the SQL.)
  --snapshot-chunk=N         Rows per keyset page of a table, by primary key (default 10000).
  --raw --result-file=PREFIX Write the server's binlog files, byte for byte, as PREFIX + each name,
                             instead of JSON (with --stop-never: a continuous archive). A file begun
                             past its start holds the magic and its FORMAT_DESCRIPTION before. A file
                             is written as NAME.partial until whole (its ROTATE, the next file, or the
                             end of the server's binlog); a failure leaves it so, whole events only.

`;
const ENCODE_HELP = `Options for encode:
  -o, --output OUT       The binlog file to write (required; - for standard output). It appears only
                         when every line was valid.
  --assume-format        Write a dump whose first line is no FORMAT_DESCRIPTION_EVENT as a reader takes
                         a binlog without one (${ASSUMED_FORMAT}), rather than refuse it.

`;
const TABLE_DEF_HELP = `
Options for dump, encode, sql, flashback and serve --from-jsonl:
  --schema-file [DB=]FILE.sql  The definitions of the tables a mysqldump --no-data (or mariadb-dump) file
                             or any script of CREATE TABLE statements creates, in the database of the USE
                             before each, else the one the dump's header names, else DB. They give rows
                             the column names, signedness, character sets and ENUM/SET members that a
                             TABLE_MAP without full metadata leaves out (binlog_row_metadata=NO_LOG or
                             MINIMAL, MySQL 5.x), and rows v0 their values; each is checked against the
                             TABLE_MAP (another table is an error naming the column). A table this tool
                             cannot describe is said on stderr and read as without a definition. Repeat
                             it for more files.
  --table-def DB.TABLE=SQL   One table's definition, the same way: its CREATE TABLE statement or its
                             column list ('a int, b char(50) not null'), or @FILE holding either. Repeat it
                             for more tables. encode needs the definitions the dump was made with.
  --table-defs FILE.json     Definitions as a JSON object: {"DB.TABLE": "SQL" or {"columns": [...],
                             "engine", "rowFormat", "charset", "packRecord"}, ...}.
                             For the same table, --table-def overrides --table-defs, which overrides
                             --schema-file.
dump, sql and flashback keep a schema history: the definitions above (or none) are those at the first file's start, and
each DDL statement in the binlog (CREATE, ALTER, RENAME, DROP TABLE, CREATE/ALTER/DROP DATABASE) changes
them, so that every TABLE_MAP is read with its table's definition at that point, tables created inside
the files included. A definition a TABLE_MAP contradicts leaves the history, said in one line naming the
table, the column and the DDL that last shaped it; its rows are read without one and the command exits 7. A DDL
statement that cannot be read leaves the tables it names unknown from there (said once).
  --schema-history=FILE      (dump, sql, flashback) Appends each change of the history to FILE, one JSON line each: the
                             position, the statement and the CREATE TABLE of every table it changed.
Without any of them, an integer column whose signedness no TABLE_MAP metadata gives reads as
{"signed": N, "unsigned": M} when its high bit is set (both readings, as mariadb-binlog -v prints them).

`;
const KEY_HELP = `
Options for dump, encode, sql, flashback and serve, for encrypted binlogs (MariaDB's encrypt_binlog=ON):
  --key-file=FILE            The server's file_key_management key file (id;hexkey lines). The events
                             after START_ENCRYPTION are decrypted with its key 1, the key MariaDB
                             encrypts binlogs with; the cipher (AES_CBC or AES_CTR, which the file does
                             not say) is the one the first encrypted event's checksum accepts. encode
                             encrypts them again, so a dump of an encrypted file encodes to its bytes.
  --key-file-key=SECRET      The key of an encrypted key file (openssl enc -aes-256-cbc -md sha1), as
                             file_key_management_filekey gives it: the secret, or FILE:PATH.
  --keyring=FILE             MySQL 8's encrypted binlogs (binlog_encryption=ON, magic fd 62 69 6e): the
                             keyring (component_keyring_file JSON, or a keyring_file plugin file) that
                             holds the key named in each file's header, with which its password and
                             then the whole file are decrypted (dump, sql, flashback). dump writes the
                             header as a MYSQL_ENCRYPTION_HEADER line first; encode encrypts the file
                             again under it, so a dump of an encrypted file encodes to its bytes.
  --encryption-algorithm=AES_CBC|AES_CTR
                             encode: the cipher to encrypt with (default AES_CBC), the server's
                             file_key_management_encryption_algorithm.
Without the key, each encrypted event is an ENCRYPTED_EVENT line of its stored bytes, whose "reason"
names the key id it needs. A key that decrypts the first encrypted event under neither cipher is an
error naming the key id and the event. serve sends the events decrypted, as a MariaDB primary does
(its START_ENCRYPTION flagged ignorable, the offsets the file's), and refuses an encrypted file
without its key or with a wrong one.
`;

const SCHEMA_HELP = `Options for schema:
  --at=FILE:POS              The definitions in force just before the event at POS of FILE (POS alone:
                             of the first FILE); without it, those after the last FILE.
  --schema-history=FILE      Start from a history dump --schema-history kept (its entries before --at),
                             rather than from --schema-file's definitions.

`;
const ENCODE_NOTES = `encode computes every derived field from the content (eventSize, the checksum, lengths, \
counts), so
an edited value of another length just works; header.logPos is computed when it is absent, null, or
the source's own pos + eventSize, and kept as given otherwise. A line that does not describe a valid
event is refused with its line number, the JSON path and the reason.

`;
const LINES_HELP = `Each line has: file (the binlog file's name, absent when reading standard input; encode ignores it),
pos (the event's file offset), header (timestamp in Unix seconds, typeCode, serverId, eventSize,
logPos, flags; the last two absent in a MySQL 3.23 binlog v1 file), type (the server's name for the
type code, UNKNOWN_<code> for a code no server defines, UNDECODED_EVENT for an event --on-error=skip
kept undecoded), the body's fields, and checksum (when the event has one); on encode typeCode may be
left out, as type implies it. An event whose body is not decoded carries "raw": {"hex": "..."}.
64-bit integers are JSON numbers when safe, decimal strings otherwise; bytes that are not valid UTF-8
are {"hex": "..."}. docs/json-format.md describes the lines, docs/events.md every event's fields.

`;
const EXIT_HELP = `On bad input every event before the fault is printed, then one line on stderr names the byte offset,
the event and the cause. Exit status: 0 success, 1 invalid binlog, 2 usage error, 3 cannot read input,
4 events were skipped (--on-error=skip), 5 a --database or --table named nothing that was read, 6 the
server refused (its words are quoted: a wrong password, a missing privilege, log_bin off, an unknown
or purged binlog or GTID, a position inside an event) or the connection failed or was lost, 7 every
event was read but some row events kept their images as bytes (rowImagesUndecoded says why), 70 an
internal error (a fault of binlog's own, said in a sentence; BINLOG_DEBUG=1 shows its stack), 130
Ctrl-C at the password prompt.
`;

const SQL_HELP = `Options for sql (and dump's filters, in binlog dump --help, and the table definitions below):
  --flashback                The SQL that undoes the changes: each one inverted (an INSERT's row
                             deleted, a DELETE's row inserted, an UPDATE's columns set back), the
                             statements and transactions last to first. Statements (DDL) are refused.
  --rows-only                Leave statements (DDL, statement-format changes) out.
  --no-create-info           With -R --snapshot: no CREATE DATABASE and CREATE TABLE, only the rows.
  --primary-key-only         WHERE clauses of the primary key's columns alone, where it is known (the
                             TABLE_MAP's full metadata, or a definition), instead of the whole image.
  -R, --read-from-remote-server and dump's options for it (but --raw): the events of a running
                             server's binlog from LOGNAME (or --start-gtid) on, as dump -R reads
                             them; for flashback too.
sql writes each transaction after a '-- file:pos, time, GTID' comment, its row changes as INSERT,
UPDATE ... WHERE <the row's before image> LIMIT 1 and DELETE ... WHERE ... LIMIT 1, its statements
after their USE and the SETs of the session they were logged in (sql_mode, charsets, time_zone,
auto_increment) where it changes, between DELIMITER lines when they hold a ';'. Values are literals the server reads \
back exactly (strings as their bytes in the
column's character set, TIMESTAMPs in UTC under SET time_zone). The columns need names: a TABLE_MAP
with binlog_row_metadata=FULL, or a definition (--schema-file); a table without is an error (exit 1),
as is an integer of unknown signedness or a change the flashback cannot undo.

Options for flashback:
  -o, --output UNDO.bin      The undo binlog to write (required; - for standard output): every rows
                             event reversed, the transactions last to first, without their GTIDs (the
                             server applying it gives each its own), for 'mariadb-binlog UNDO.bin |
                             mariadb'. It is written only when every event could be undone: statements (DDL),
                             statement-format events, and images without the columns the undo writes
                             (binlog_row_image=MINIMAL or NOBLOB) are refused, naming the event.
`;

const SERVE_HELP = `Options for serve (binlog serve [options] FILE|DIR... or --from-jsonl FILE|-):
  --port=N                   TCP port (default 3306; 0: any free one, said on standard error).
  --host=H                   The address to listen on (default 127.0.0.1: this machine only); another
                             needs --user (or --allow-anonymous).
  --user=U --password[=PW]   The account replicas must give (mysql_native_password); without
                             --user any account is let in. --password without a value asks for it;
                             --password-file=FILE reads its first line; MYSQL_PWD is taken when
                             none of them is given.
  --server-id=N              The source's server id (default: the first binlog's, whose events carry
                             it); replicas must have another.
  --ssl-cert=PEM --ssl-key=PEM
                             A certificate and its key: TLS is offered, for clients and replicas
                             that ask for it (MASTER_SSL=1); others are served in the clear.
  --follow                   At the end of the last binlog, wait for it to grow and for new files in
                             a folder (a folder's *.index names its binlogs), as for a live server.
  --from-jsonl FILE|-        Serve the events of dump-format JSON lines (an edited dump), encoded as
                             encode writes them, each binlog named by its events' "file" (default
                             binlog.000001), log_pos computed; the table definitions options apply.
  --max-allowed-packet=N     The largest packet a client may send once logged in, in bytes (default
                             16777216, MariaDB's); before login 16 KB. A larger one ends the connection.
  --connect-timeout=S        Seconds a client has to log in (default 10).
  --wait-timeout=S           Seconds a client may stay without a command (default 28800).
  --max-connections=N        Clients at once (default 151); the next gets "Too many connections".
  --allow-anonymous          Without --user, listen on an address other machines reach (--host=0.0.0.0):
                             anyone who reaches it can read the binlogs. Without it serve refuses to.
serve answers what replicas and CDC clients ask before a dump (SELECT UNIX_TIMESTAMP(), @@server_id,
@@version, @@global.binlog_checksum, SHOW MASTER STATUS, SHOW BINARY LOGS, SET @...), then
COM_REGISTER_SLAVE and COM_BINLOG_DUMP from a file and position or a MariaDB GTID state
(MASTER_USE_GTID=slave_pos), as a primary sends: a fake ROTATE, the FORMAT_DESCRIPTION, the events,
heartbeats when idle; a MariaDB GTID start per domain, and what older replicas can read. Any other
statement gets an error quoting it. See docs/serve.md.
`;

const STREAM_HELP = `Streaming changes into NATS JetStream (docs/stream.md describes the messages):
  binlog stream -R [connection options] [LOGNAME] --to=nats://HOST:PORT[,…] [options]
  Each row change a message on PREFIX.<db>.<table>, a Debezium-shaped change record whose Nats-Msg-Id
  names the change (server id, GTID or file:pos, index), so that JetStream drops a resend. The
  checkpoint is kept in the KV bucket binlog-checkpoints, written once the messages before it are
  acknowledged; a start resumes from it. LOGNAME, --start-position and --start-gtid say where to
  begin when it holds none; without them the stream begins at the end of the server's current binlog.
  A lost broker is waited for; the stream goes on from the checkpoint. The rows are read with a schema
  history (dump's, below: seeded by --schema-file, --table-def or --table-defs), whose changes are kept
  in the same bucket beside the checkpoint: a start from a checkpoint reads with the definitions of that
  point, which the kept history gives in place of the options' own.
  The connection options are dump -R's (--reconnect too: give it, or a lost server ends the stream).
  --to=nats://HOST:PORT[,…]  The NATS server, or several of a cluster separated by commas (required).
  --stream=NAME              The JetStream stream (default binlog), created when missing, on PREFIX.>.
  --replicas=N               The copies a new stream and checkpoint bucket keep on a cluster (default 1).
  --subject-prefix=P         The subjects' first token (default binlog).
  --partitions=N             Row changes on PREFIX.<db>.<table>.<P>, P a hash of the primary key modulo
                             N: consumers can share a table; the order kept is per key, not per table.
  --ddl                      Publish statements too (DDL; not BEGIN, COMMIT, XA): on PREFIX._ddl.
  --in-flight=N              Messages published and not yet acknowledged, at most (default 1000): a
                             slow or stopped broker holds the reading there.
  --ack-timeout=S            Seconds a message waits for its acknowledgement before the broker counts
                             as lost (default 10).
  --to-last-log              End at the end of the server's last binlog (by default: wait for more).
  --stats=S                  Every S seconds, and at the end, one JSON line of counts on stdout.
  --progress                 The status line on stderr (by default when stderr is a terminal).
  --snapshot                 First the tables --database and --table select, as of one consistent
                             point, as op "r" records, then the changes from exactly that point. The
                             checkpoint says snapshotDone: a stream killed during the snapshot takes it
                             again when started again; one killed after goes on from the checkpoint.
  --snapshot-chunk=N         Rows per keyset page of a table, by primary key (default 10000).
  --database=DB, --table=T   With --snapshot: the tables snapshotted (repeatable; T is db.table or table).
SIGINT or SIGTERM end it once what was read is acknowledged and its checkpoint written.
`;

export const HELP = [
  USAGE,
  DUMP_HELP,
  REMOTE_HELP,
  ENCODE_HELP,
  SQL_HELP,
  SERVE_HELP,
  SCHEMA_HELP,
  TABLE_DEF_HELP,
  KEY_HELP,
  ENCODE_NOTES,
  LINES_HELP,
  EXIT_HELP,
].join('');

/**
 * `binlog COMMAND --help`: the usage, the command's options, and what they share (sql's part holds flashback's too).
 */
export const COMMAND_HELP = {
  dump: [USAGE, DUMP_HELP, REMOTE_HELP, TABLE_DEF_HELP, KEY_HELP, LINES_HELP, EXIT_HELP].join(''),
  encode: [USAGE, ENCODE_HELP, TABLE_DEF_HELP, KEY_HELP, ENCODE_NOTES, LINES_HELP, EXIT_HELP].join(''),
  sql: [USAGE, SQL_HELP, TABLE_DEF_HELP, KEY_HELP, EXIT_HELP].join(''),
  serve: [USAGE, SERVE_HELP, TABLE_DEF_HELP, KEY_HELP, EXIT_HELP].join(''),
  stream: [USAGE, STREAM_HELP, REMOTE_HELP, TABLE_DEF_HELP, EXIT_HELP].join(''),
  schema: [USAGE, SCHEMA_HELP, TABLE_DEF_HELP, EXIT_HELP].join(''),
} as const;
