import { ApiProperty } from '@nestjs/swagger';
import type { PlayedGame, PlayedGameDetail, PlayedGameResult } from '@oasis198/contracts';
import {
  END_REASONS,
  type EndReason,
  MOVE_OPTIONS,
  type MoveOption,
  type MoveRecord,
  type Seat,
  SEATS,
} from '@oasis198/game-rules';

const RESULTS: readonly PlayedGameResult[] = ['won', 'lost', 'draw'];

/** One move as the game recorded it (libs/game-rules MoveRecord). */
export class MoveRecordDto implements MoveRecord {
  @ApiProperty({ enum: SEATS }) player!: Seat;
  @ApiProperty({ minimum: 1, maximum: 9 }) number!: number;
  @ApiProperty({ enum: MOVE_OPTIONS }) option!: MoveOption;
  @ApiProperty({ minimum: 1, maximum: 9, description: "The AI's number for this move (from the seed)." })
  aiNumber!: number;
  @ApiProperty({ description: 'The running total after the move.' }) total!: number;
  @ApiProperty({ description: 'When the move was made, in SPEC seconds (since 2022-11-17).' }) at!: number;
}

/** The other player of a game. */
export class OpponentDto {
  @ApiProperty({ description: "Their user id; the AI's is 'ai:<roomId>'." }) id!: string;
  @ApiProperty({ example: 'player2' }) name!: string;
}

/** One finished game in a player's history. */
export class PlayedGameDto implements PlayedGame {
  @ApiProperty({ example: '6650c0ffee0000000000beef:2', description: '`<roomId>:<gameNumber>`' })
  gameId!: string;

  @ApiProperty() roomId!: string;

  @ApiProperty({ example: '2026-01-01T12:00:00.000Z' }) finishedAt!: string;

  @ApiProperty({ enum: SEATS, description: "The player's seat; player1 moved first." }) seat!: Seat;

  @ApiProperty({
    type: OpponentDto,
    description: "The other player; the AI is { id: 'ai:<roomId>', name: 'AI' }.",
  })
  opponent!: OpponentDto;

  @ApiProperty({ enum: RESULTS }) result!: PlayedGameResult;

  @ApiProperty({ enum: END_REASONS }) endReason!: EndReason;

  @ApiProperty({ description: 'How many moves the game had.' }) moves!: number;

  @ApiProperty({ example: 32, description: 'Seconds per turn.' }) duration!: number;

  @ApiProperty({
    nullable: true,
    type: String,
    description: "SHA-256 of the game's AI seed, shown from its start.",
  })
  aiCommit!: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'The AI seed, revealed when the game ended.' })
  aiSeed!: string | null;

  @ApiProperty({ description: 'Whether its moves are recorded, so it can be replayed and checked.' })
  verifiable!: boolean;
}

/** A game with every move, to replay it and check the commitment and every AI number. */
export class PlayedGameDetailDto extends PlayedGameDto implements PlayedGameDetail {
  @ApiProperty({
    type: [MoveRecordDto],
    nullable: true,
    description: 'Null for a game whose moves were not recorded (ended before they were).',
  })
  moveList!: MoveRecordDto[] | null;
}
