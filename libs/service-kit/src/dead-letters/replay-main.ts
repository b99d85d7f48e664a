/**
 * Replays a service's dead letters: `npx nx run <service>:replay-dead-letters` (rooms, auth), with
 * the service's MONGO_URL and NATS_URL (and NATS_USER/NATS_PASSWORD where NATS has users) in the
 * environment. Run from source through @swc-node/register; prints what it did, and exits with 1
 * when some dead letters are still refused (their records stay for the next run).
 */
import mongoose from 'mongoose';
import { baseEnv, ConfigError, loadConfig, mongoEnv, natsEndpoint } from '../config';
import { createLogger } from '../logger';
import { JetStreamService } from '../nats/jetstream.service';
import { DEAD_LETTERS_COLLECTION, type DeadLetterRecord, replayDeadLetters } from './dead-letters';

const replayEnv = baseEnv
  .pick({ NATS_URL: true, NATS_USER: true, NATS_PASSWORD: true, LOG_LEVEL: true })
  .merge(mongoEnv);

async function main(): Promise<number> {
  const service = process.argv[2] ?? 'service';
  let config: ReturnType<typeof loadConfig<typeof replayEnv>>;
  try {
    // Only the variables it uses (and their *_FILE forms): the rest of the environment is not ours.
    const names = Object.keys(replayEnv.shape).flatMap((name) => [name, `${name}_FILE`]);
    config = loadConfig(replayEnv, Object.fromEntries(names.map((name) => [name, process.env[name]])));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`replay-dead-letters (${service}): ${error.message}`);
      return 2;
    }
    throw error;
  }
  const say = (line: string) => process.stdout.write(`[${service}] ${line}\n`);
  const logger = createLogger(
    `${service}-replay-dead-letters`,
    config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL,
  );
  const connection = await mongoose
    .createConnection(config.MONGO_URL, { serverSelectionTimeoutMS: 10_000 })
    .asPromise();
  const jetstream = new JetStreamService({ ...natsEndpoint(config), name: `${service}-replay` }, logger);
  try {
    await jetstream.connect({ maxReconnectAttempts: 3, waitOnFirstConnect: false });
    const summary = await replayDeadLetters(
      connection.collection<DeadLetterRecord>(DEAD_LETTERS_COLLECTION),
      jetstream,
      say,
    );
    return summary.failed > 0 ? 1 : 0;
  } finally {
    await jetstream.close();
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('replay-dead-letters failed:', error);
    process.exit(1);
  },
);
