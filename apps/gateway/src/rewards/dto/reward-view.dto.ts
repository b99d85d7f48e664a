import { ApiProperty } from '@nestjs/swagger';
import type { EditRewardResponse, RankedReward, RewardView } from '@oasis198/contracts';

export class AssetsDto {
  @ApiProperty({ example: 130 })
  points!: number;

  @ApiProperty({ example: 42 })
  coins!: number;
}

export class CategoriesDto {
  @ApiProperty() bronze!: boolean;
  @ApiProperty() silver!: boolean;
  @ApiProperty() gold!: boolean;
  @ApiProperty() platinum!: boolean;
}

export class ChampionStatusDto {
  @ApiProperty() blitzWinner!: boolean;
  @ApiProperty() eventsWinner!: boolean;
  @ApiProperty() cityWinner!: boolean;
  @ApiProperty() countryWinner!: boolean;
  @ApiProperty() continentWinner!: boolean;
  @ApiProperty() worldWinner!: boolean;
}

export class LevelStatusDto {
  @ApiProperty() rookie!: boolean;
  @ApiProperty() challenger!: boolean;
  @ApiProperty() expert!: boolean;
  @ApiProperty() master!: boolean;
  @ApiProperty() legend!: boolean;
  @ApiProperty({ example: 2, description: '1 + floor(points / 100)' })
  level!: number;
}

/** SPEC §3's reward / profile record, plus the games won. */
export class RewardViewDto implements RewardView {
  @ApiProperty() playerId!: string;
  @ApiProperty() playerName!: string;
  @ApiProperty() playedGames!: number;
  @ApiProperty({ description: 'Games won against a person (a win against the AI counts nothing).' })
  wins!: number;
  @ApiProperty({ type: AssetsDto }) assets!: AssetsDto;
  @ApiProperty({ type: CategoriesDto }) categories!: CategoriesDto;
  @ApiProperty({ type: ChampionStatusDto }) championStatus!: ChampionStatusDto;
  @ApiProperty({ type: LevelStatusDto }) levelStatus!: LevelStatusDto;
}

/** A record with its place on the leaderboard. */
export class RankedRewardDto extends RewardViewDto implements RankedReward {
  @ApiProperty({
    example: 3,
    description:
      'Place on the leaderboard by points, then wins, then name (most first, name A to Z); players ' +
      'equal in all three share a rank (1, 2, 2, 4).',
  })
  rank!: number;
}

export class EditRewardResponseDto implements EditRewardResponse {
  @ApiProperty({ type: RewardViewDto })
  reward!: RewardViewDto;
}
