export { QuickBattleLayout, QuickBattleHome } from './QuickBattle';
export { RoomList } from './RoomList';
export { CreateRoom } from './CreateRoom';
