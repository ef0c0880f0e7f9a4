ANSWERS = {"step 1.1 of \"What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?\"":"Chief of Protocol"}

def find_entity_cc0f423693ce(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
