/**
 * JetStream's answers to a publish, as sinks/nats.ts reads them: a plain PubAck without parsing it, anything
 * else parsed whole. The texts are what nats-server v2.9.10 answered to a publish, its resend with the same
 * Nats-Msg-Id, and a publish over a stream's max_msgs with discard new.
 */
import { expect, it } from 'vitest';
import { readPubAck } from '../sinks/nats.js';

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
