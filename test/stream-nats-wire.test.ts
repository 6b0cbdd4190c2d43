/**
 * What the NATS sink (sinks/nats.ts) puts on the wire and reads back, beside the client's own ways: a
 * message's Nats-Msg-Id header, the same bytes as the client's headers() writes; and JetStream's answers
 * to a publish, a plain PubAck read without parsing it, anything else parsed whole. The answers' texts are
 * what nats-server v2.9.10 answered to a publish, its resend with the same Nats-Msg-Id, and a publish over
 * a stream's max_msgs with discard new.
 */
import { expect, it } from 'vitest';
import { headers, MsgHdrsImpl } from '@nats-io/transport-node';
import { MsgIdHeader, readPubAck } from '../sinks/nats.js';

const read = (text: string) => readPubAck(new TextEncoder().encode(text));

it('takes a plain PubAck as stored, whatever its spacing and members', () => {
  expect(read('{"stream":"s", "seq":1}')).toEqual({ duplicate: false });
  expect(read('{"stream":"binlog", "domain":"hub", "seq":200000}')).toEqual({ duplicate: false });
  expect(read('{"stream":"s","seq":7}')).toEqual({ duplicate: false });
});

it('reads a duplicate as stored before', () => {
  expect(read('{"stream":"s", "seq":1,"duplicate": true}')).toEqual({ duplicate: true });
  expect(read('{"stream":"s","seq":1,"duplicate":false}')).toEqual({ duplicate: false });
});

it('names the error of a refused message, even beside a sequence number', () => {
  const refusal =
    '{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"},"stream":"s","seq":0}';
  expect(read(refusal)).toEqual({ refused: 'JetStream refused it: maximum messages exceeded (10077)' });
  expect(read('{"error":{"code":400,"description":"expected stream does not match"},"stream":"s"}')).toEqual({
    refused: 'JetStream refused it: expected stream does not match (400)',
  });
});

it('parses a stream named like a member whole, and reads it right', () => {
  expect(read('{"stream":"error", "seq":3}')).toEqual({ duplicate: false });
  expect(read('{"stream":"duplicate", "seq":3}')).toEqual({ duplicate: false });
});

it('refuses an answer that is not an acknowledgement, quoting it', () => {
  expect(read('{"stream":"s"}')).toEqual({ refused: 'JetStream\'s answer is not an acknowledgement: {"stream":"s"}' });
  expect(read('{"seq"')).toEqual({ refused: 'JetStream\'s answer is not JSON: {"seq"' });
  expect(read('+OK')).toEqual({ refused: "JetStream's answer is not JSON: +OK" });
});

it("writes a message's Nats-Msg-Id header as the client's headers() does, and refuses a line break in it", () => {
  for (const id of [
    '103/0-1-1000/0',
    '1/binlog.000001:4/17',
    '4294967295/3E11FA47-71CA-11E1-9E33-C80AA9429562:23/999',
  ]) {
    const client = headers();
    client.set('Nats-Msg-Id', id);
    const ours = new MsgIdHeader(id);
    expect(new TextDecoder().decode(ours.encode())).toBe(`NATS/1.0\r\nNats-Msg-Id: ${id}\r\n\r\n`);
    expect(Buffer.from(ours.encode()).equals((client as MsgHdrsImpl).encode())).toBe(true);
    expect([ours.get('Nats-Msg-Id'), ours.toString()]).toEqual([id, client.toString()]);
  }
  expect(() => new MsgIdHeader('1/binlog\n.000001:4/0')).toThrow(
    'the message id "1/binlog\\n.000001:4/0" holds a line break',
  );
});
