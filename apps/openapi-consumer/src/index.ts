export {
  createPlant,
  createPlantStoreClient,
  type ApiError,
  type CreatePlantResult,
  type NewPlant,
  type Plant,
} from "./create-plant.js";
