// Reads a MySQL/MariaDB source's binlogs with go-mysql's BinlogSyncer, from the first binlog's start until no event
// has come for two seconds, and prints each row change as one JSON line: the event kind, schema, table and each
// row's values by the names the TABLE_MAP gives the columns. Used by test/serve-cdc-clients.test.ts to compare what
// the client sees of a real primary with what it sees of `binlog serve` of that primary's files.
//
// Arguments: the address (host:port, or unix:/path/to/socket), and the first binlog's name.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/siddontang/go-log/log"
)

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(address, file string) error {
	// The client's log goes to stderr: stdout holds the row changes only.
	handler, err := log.NewStreamHandler(os.Stderr)
	if err != nil {
		return err
	}
	cfg := replication.BinlogSyncerConfig{ServerID: 4243, Flavor: "mariadb", User: "root", Logger: log.NewDefault(handler)}
	if socket := strings.TrimPrefix(address, "unix:"); socket != address {
		// A throwaway primary listens on its socket only; the dialer ignores the host and port it is given.
		cfg.Host, cfg.Port = "localhost", 3306
		cfg.Dialer = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}
	} else {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return err
		}
		cfg.Host, cfg.Port = host, uint16(p)
	}
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close()
	streamer, err := syncer.StartSync(mysql.Position{Name: file, Pos: 4})
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		e, err := streamer.GetEvent(ctx)
		cancel()
		if err == context.DeadlineExceeded {
			return nil
		}
		if err != nil {
			return err
		}
		if err := printRows(out, e); err != nil {
			return err
		}
	}
}

var kinds = map[replication.EventType]string{
	replication.WRITE_ROWS_EVENTv1:  "insert",
	replication.WRITE_ROWS_EVENTv2:  "insert",
	replication.UPDATE_ROWS_EVENTv1: "update",
	replication.UPDATE_ROWS_EVENTv2: "update",
	replication.DELETE_ROWS_EVENTv1: "delete",
	replication.DELETE_ROWS_EVENTv2: "delete",
}

// printRows prints a rows event's rows; an UPDATE's come in pairs, before and after.
func printRows(out *json.Encoder, e *replication.BinlogEvent) error {
	kind, ok := kinds[e.Header.EventType]
	if !ok {
		return nil
	}
	rows := e.Event.(*replication.RowsEvent)
	names := rows.Table.ColumnNameString()
	named := func(values []interface{}) map[string]string {
		m := map[string]string{}
		for i, v := range values {
			name := "@" + strconv.Itoa(i+1)
			if i < len(names) {
				name = names[i]
			}
			m[name] = text(v)
		}
		return m
	}
	step := 1
	if kind == "update" {
		step = 2
	}
	for i := 0; i+step <= len(rows.Rows); i += step {
		line := map[string]interface{}{"kind": kind, "schema": string(rows.Table.Schema), "table": string(rows.Table.Table)}
		if kind == "update" {
			line["row"] = map[string]interface{}{"before_values": named(rows.Rows[i]), "after_values": named(rows.Rows[i+1])}
		} else {
			line["row"] = map[string]interface{}{"values": named(rows.Rows[i])}
		}
		if err := out.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// text is a value as the test compares it: NULL as null's text, bytes as their text, the rest as Go prints it.
func text(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}
