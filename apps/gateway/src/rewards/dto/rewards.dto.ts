import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  type CreateRewardBody,
  type EditRewardBody,
  REWARDS_MAX_PAGE_SIZE,
  REWARDS_PAGE_SIZE,
} from '@oasis198/contracts';
import { validateUsername } from '@oasis198/game-rules';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../http/page-query.dto';
import { SpecRule } from '../../http/spec-rule';

export class ListRewardsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: REWARDS_MAX_PAGE_SIZE,
    default: REWARDS_PAGE_SIZE,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `pageSize must be a whole number from 1 to ${REWARDS_MAX_PAGE_SIZE}.` })
  @Min(1, { message: `pageSize must be a whole number from 1 to ${REWARDS_MAX_PAGE_SIZE}.` })
  @Max(REWARDS_MAX_PAGE_SIZE, {
    message: `pageSize must be a whole number from 1 to ${REWARDS_MAX_PAGE_SIZE}.`,
  })
  pageSize?: number;
}

/** SPEC's create payload; playerId must be the caller's own id. */
export class CreateRewardDto implements CreateRewardBody {
  @ApiProperty({ description: "The caller's user id." })
  @IsString({ message: 'playerId must be your user id.' })
  @Length(1, 64, { message: 'playerId must be your user id.' })
  playerId!: string;

  @ApiProperty({ example: 'player1' })
  @SpecRule(validateUsername)
  playerName!: string;
}

/** The only field a client may change: points, coins, levels and titles are earned, not set. */
export class EditRewardDto implements EditRewardBody {
  @ApiProperty({ example: 'player1' })
  @SpecRule(validateUsername)
  playerName!: string;
}
