import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Consumers, EventTypes, gameFinishedSchema, parseWith, Streams } from '@oasis198/contracts';
import { JetStreamService } from '@oasis198/service-kit';
import { ArenaService } from './arena.service';

/** game.finished from GAMES, through the tournaments' own durable consumer (shared by its replicas). */
@Injectable()
export class GamesConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly jetstream: JetStreamService,
    private readonly arenas: ArenaService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jetstream.ensureStreams([Streams.games]);
    await this.jetstream.consume(Consumers.tournamentsGames, async (event) => {
      if (event.type !== EventTypes.gameFinished) return;
      await this.arenas.onGameFinished(parseWith(gameFinishedSchema, event.data));
    });
  }
}
