print("chainlab")
