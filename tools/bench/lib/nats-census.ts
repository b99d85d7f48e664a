// What NATS carries, by purpose: one subscriber to every subject (">") for a few seconds, counting
// messages and payload bytes by subject class. Ids in subjects become "*"; a reply is classed by
// the request it answers, a JetStream delivery by its stream (its reply subject, $JS.ACK.<stream>).
// The subscriber adds its own copy of every message to NATS's out counters, so this runs outside
// the measured window.
import { connect } from 'nats';

/** A subject with its id-like tokens as "*": roomlog.6b0f...ee -> roomlog.*. */
function shape(subject: string) {
  return subject
    .split('.')
    .map((token) => (/\d/.test(token) && token.length >= 8 ? '*' : token))
    .join('.');
}

/** The class of a message that is not a reply: its subject's shape, JetStream API calls by verb and stream. */
function classOf(subject: string, reply: string | undefined) {
  if (reply?.startsWith('$JS.ACK.')) return `delivery from stream ${reply.split('.')[2]}`;
  if (subject.startsWith('$JS.ACK.')) return `ack to stream ${subject.split('.')[2]}`;
  if (subject.startsWith('$JS.API.')) {
    const tokens = subject.split('.');
    // $JS.API.<VERB...>.<stream or bucket stream>[.<consumer>]: keep the verb and the stream.
    const verb = tokens.slice(2, -1).filter((t) => t === t.toUpperCase() && !/\d/.test(t));
    return `JS API ${verb.join('.')} ${tokens
      .slice(2 + verb.length)
      .map(shape)
      .join('.')}`.trim();
  }
  if (subject.startsWith('$KV.')) return `KV write ${subject.split('.')[1]}`;
  return shape(subject);
}

export type NatsCensus = {
  seconds: number;
  rows: { what: string; msgs: number; bytes: number }[];
};

/** Counts every message NATS carries for `seconds` (at natsUrl), by class. */
export async function natsCensus(natsUrl: string, seconds: number): Promise<NatsCensus> {
  const nc = await connect({ servers: natsUrl, name: 'bench census' });
  const counts = new Map<string, { msgs: number; bytes: number }>();
  /** Reply subjects waiting for their answer, with the class of the request. */
  const awaiting = new Map<string, string>();
  const count = (what: string, bytes: number) => {
    const c = counts.get(what) ?? { msgs: 0, bytes: 0 };
    c.msgs++;
    c.bytes += bytes;
    counts.set(what, c);
  };
  const sub = nc.subscribe('>');
  const started = performance.now();
  const done = (async () => {
    for await (const msg of sub) {
      const request = awaiting.get(msg.subject);
      if (request) {
        awaiting.delete(msg.subject);
        count(`reply to ${request}`, msg.data.length);
        continue;
      }
      const what = classOf(msg.subject, msg.reply);
      count(what, msg.data.length);
      // A request's reply; deliveries' $JS.ACK replies are acks, counted when they come.
      if (msg.reply && !msg.reply.startsWith('$JS.ACK.')) {
        awaiting.set(msg.reply, what);
        if (awaiting.size > 100_000) awaiting.clear();
      }
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  sub.unsubscribe();
  await done;
  await nc.close();
  const rows = [...counts].map(([what, c]) => ({ what, ...c })).sort((a, b) => b.msgs - a.msgs);
  return { seconds: (performance.now() - started) / 1000, rows };
}
