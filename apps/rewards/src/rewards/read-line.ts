import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, WorkLine } from '@oasis198/service-kit';
import type { RewardsConfig } from '../config';

/**
 * The line every public read of this replica waits in (leaderboard pages, records, game
 * histories): anyone may send them, unlimited, so a storm of them must leave no backlog of
 * database reads nobody waits for (WorkLine). Payments do not wait in it.
 */
@Injectable()
export class ReadLine extends WorkLine {
  constructor(@Inject(CONFIG) config: Pick<RewardsConfig, 'PUBLIC_READS_AT_ONCE'>) {
    super(config.PUBLIC_READS_AT_ONCE);
  }
}
