import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, WorkLine } from '@oasis198/service-kit';
import type { RoomsConfig } from '../config';

/**
 * The line the public reads of this replica wait in (room lists and single rooms): anyone may send
 * them, unlimited, so a storm of them must leave no backlog of reads nobody waits for (WorkLine).
 * Changes and Play now do not wait in it.
 */
@Injectable()
export class ReadLine extends WorkLine {
  constructor(@Inject(CONFIG) config: Pick<RoomsConfig, 'PUBLIC_READS_AT_ONCE'>) {
    super(config.PUBLIC_READS_AT_ONCE);
  }
}
