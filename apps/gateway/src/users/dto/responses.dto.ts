import { ApiProperty } from '@nestjs/swagger';
import type { AuthUser, EditUserResponse, MessageResponse } from '@oasis198/contracts';

export class AuthUserDto implements AuthUser {
  @ApiProperty({ example: '6650c0ffee0000000000beef' })
  _id!: string;

  @ApiProperty({ example: 'player1' })
  name!: string;

  @ApiProperty({ description: 'Bearer token (JWT) for the calls that need one.' })
  token!: string;
}

export class EditedUserDto extends AuthUserDto {
  @ApiProperty({ example: 'player1@example.com' })
  email!: string;
}

export class EditUserResponseDto implements EditUserResponse {
  @ApiProperty({ type: EditedUserDto, description: "The token is the caller's own, still valid." })
  user!: EditedUserDto;
}

export class MessageDto implements MessageResponse {
  @ApiProperty({ example: 'You have successfully logged out!' })
  message!: string;
}
