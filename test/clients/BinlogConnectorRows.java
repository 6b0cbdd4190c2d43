/*
 * Reads a MySQL/MariaDB source's binlogs with mysql-binlog-connector-java (the binlog client Debezium streams with),
 * from the first binlog's start to its end (non-blocking), and prints each row change as one JSON line: the event
 * kind, schema, table and each row's values by the names the TABLE_MAP's metadata gives the columns. Used by
 * test/serve-cdc-clients.test.ts to compare what the client sees of a real primary with what it sees of
 * `binlog serve` of that primary's files.
 *
 * Arguments: host, port, user, the first binlog's name.
 */
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class BinlogConnectorRows {
    public static void main(String[] args) throws Exception {
        BinaryLogClient client = new BinaryLogClient(args[0], Integer.parseInt(args[1]), args[2], "");
        client.setServerId(4244);
        client.setBinlogFilename(args[3]);
        client.setBinlogPosition(4);
        client.setBlocking(false);
        Map<Long, TableMapEventData> tables = new HashMap<>();
        client.registerEventListener(event -> {
            EventData data = event.getData();
            if (data instanceof TableMapEventData) {
                TableMapEventData map = (TableMapEventData) data;
                tables.put(map.getTableId(), map);
            } else if (data instanceof WriteRowsEventData) {
                WriteRowsEventData rows = (WriteRowsEventData) data;
                for (Serializable[] row : rows.getRows()) print("insert", tables.get(rows.getTableId()), row, null);
            } else if (data instanceof UpdateRowsEventData) {
                UpdateRowsEventData rows = (UpdateRowsEventData) data;
                for (Map.Entry<Serializable[], Serializable[]> row : rows.getRows()) {
                    print("update", tables.get(rows.getTableId()), row.getKey(), row.getValue());
                }
            } else if (data instanceof DeleteRowsEventData) {
                DeleteRowsEventData rows = (DeleteRowsEventData) data;
                for (Serializable[] row : rows.getRows()) print("delete", tables.get(rows.getTableId()), row, null);
            }
        });
        client.connect();
    }

    /** One change: its image, or an UPDATE's two. */
    static void print(String kind, TableMapEventData table, Serializable[] image, Serializable[] after) {
        List<String> names = table.getEventMetadata() == null ? null : table.getEventMetadata().getColumnNames();
        String row = after == null
            ? "{\"values\": " + named(names, image) + "}"
            : "{\"before_values\": " + named(names, image) + ", \"after_values\": " + named(names, after) + "}";
        System.out.println("{\"kind\": " + quoted(kind) + ", \"schema\": " + quoted(table.getDatabase())
            + ", \"table\": " + quoted(table.getTable()) + ", \"row\": " + row + "}");
    }

    /** An image as a JSON object, each value by its column's name (@1, @2… where the TABLE_MAP gives none). */
    static String named(List<String> names, Serializable[] values) {
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            String name = names != null && i < names.size() ? names.get(i) : "@" + (i + 1);
            fields.add(quoted(name) + ": " + value(values[i]));
        }
        return "{" + String.join(", ", fields) + "}";
    }

    /** A value as JSON: NULL as null, bytes as their UTF-8 text, the rest as Java prints it. */
    static String value(Serializable v) {
        if (v == null) return "null";
        if (v instanceof byte[]) return quoted(new String((byte[]) v, StandardCharsets.UTF_8));
        if (v instanceof java.util.BitSet) return quoted(v.toString());
        return quoted(String.valueOf(v));
    }

    static String quoted(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
